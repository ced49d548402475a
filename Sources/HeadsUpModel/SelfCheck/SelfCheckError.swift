/// A self-check that could not run (its fixture files are missing or damaged).
package enum SelfCheckError: Error, CustomStringConvertible, Equatable {
    case unreadable(String, String)

    package var description: String {
        switch self {
        case .unreadable(let file, let reason):
            "\(file): \(reason); give the folder that holds cases.json (Tests/Fixtures/keras in the source tree)"
        }
    }
}
