/// One layer as the Keras config describes it.
package struct KerasLayerConfig: Sendable {
    package var className: String
    package var name: String
    package var config: JSONValue

    /// "name (Class)", how errors name a layer.
    package var label: String { "'\(name)' (\(className))" }

    package init(className: String, name: String, config: JSONValue) {
        self.className = className
        self.name = name
        self.config = config
    }

    /// Reads a `{"class_name": …, "config": {…}}` object.
    init?(_ json: JSONValue) {
        guard let className = json["class_name"]?.string, let config = json["config"], config.object != nil else {
            return nil
        }
        self.className = className
        self.config = config
        name = config["name"]?.string ?? json["name"]?.string ?? className.lowercased()
    }
}
