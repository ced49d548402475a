/// Who may send the signals a match subscribes to.
///
/// A match rule's `sender=` asks the bus to route the named service's
/// broadcasts here, but it filters nothing else: the bus's default policy
/// lets any local client send a signal addressed to HeadsUp's unique name,
/// with any path, interface and member, and sd-bus hands it to every match
/// it fits. So each delivered signal's sender (which the bus daemon writes,
/// and no client can forge) is checked against the name the rule gives:
///
/// - `org.freedesktop.DBus`, the bus driver, is itself;
/// - a unique name (`:1.42`) must be that connection;
/// - a well-known name (`org.bluez`) must be its current unique owner,
///   followed through the bus driver's `NameOwnerChanged` (checked the same
///   way, so a forged one changes nothing) from the moment the first match
///   naming it is added, then read once with `GetNameOwner`.
///
/// Anything else is dropped before its arguments are decoded, and counted.
struct DBusSenderCheck {
    static let busDriver = "org.freedesktop.DBus"

    /// Current unique owners of the well-known names followed; nil: no owner.
    private(set) var owners: [String: String] = [:]
    private(set) var followed: Set<String> = []

    /// Whether `name` needs following (a well-known name not yet followed).
    func needsFollowing(_ name: String) -> Bool { name != Self.busDriver && !name.hasPrefix(":") && !followed.contains(name) }

    mutating func follow(_ name: String) { followed.insert(name) }

    mutating func ownerChanged(_ name: String, to owner: String?) {
        guard followed.contains(name) else { return }
        owners[name] = owner.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether a signal from `actual` may be delivered to a match naming `expected`.
    func accepts(_ actual: String?, from expected: String) -> Bool {
        guard let actual else { return false }
        if expected == Self.busDriver || expected.hasPrefix(":") { return actual == expected }
        return owners[expected] == actual
    }

    /// The `sender='…'` of a D-Bus match rule, or nil when it names none.
    /// Values are single-quoted; `'\''` puts a quote inside one (the
    /// specification's only escape).
    static func sender(inRule rule: String) -> String? {
        var index = rule.startIndex
        while index < rule.endIndex {
            // key
            let keyStart = index
            while index < rule.endIndex, rule[index] != "=" { index = rule.index(after: index) }
            guard index < rule.endIndex else { return nil }
            let key = rule[keyStart..<index].trimmingSpaces
            index = rule.index(after: index)
            // value: quoted pieces and bare characters up to an unquoted comma
            var value = ""
            var quoted = false
            while index < rule.endIndex {
                let character = rule[index]
                index = rule.index(after: index)
                if character == "'" {
                    quoted.toggle()
                } else if character == ",", !quoted {
                    break
                } else {
                    value.append(character)
                }
            }
            if key == "sender" { return value }
        }
        return nil
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
