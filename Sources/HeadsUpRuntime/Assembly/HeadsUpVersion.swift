/// The version `headsup --version` prints.
public enum HeadsUpVersion {
    public static let current = "0.1.0"
}
