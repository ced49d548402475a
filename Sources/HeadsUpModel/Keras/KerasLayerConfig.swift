/// One layer as the Keras config describes it.
public struct KerasLayerConfig: Sendable {
    public var className: String
    public var name: String
    public var config: JSONValue

    /// "name (Class)", how errors name a layer.
    public var label: String { "'\(name)' (\(className))" }

    public init(className: String, name: String, config: JSONValue) {
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
