import ArgumentParser

/// How a command prints a table of results.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, markdown, json
}
