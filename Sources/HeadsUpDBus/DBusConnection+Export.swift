import CSDBus
import Glibc

/// Objects this process serves on the bus, through one seam: a raw sd-bus
/// fallback callback that hands each method call to a Swift handler as a
/// ``DBusMethodCall`` and sends its ``DBusMethodOutcome`` back. No vtables:
/// the handler answers Properties and ObjectManager itself (``DBusObjectTree``
/// does it from a table), which keeps every C callback in this file.
extension DBusConnection {
    /// Serves method calls to `root` and every path below it with
    /// `handler`, until `unexport` (or the connection's end). Calls are
    /// answered while the connection is processed (`process(timeout:)`), on
    /// that thread.
    @discardableResult
    public func export(under root: String, handler: @escaping (DBusMethodCall) -> DBusMethodOutcome) throws(DBusError) -> DBusExport {
        let box = ExportBox(handler: handler)
        let callback: sd_bus_message_handler_t = { message, userdata, _ in
            guard let message, let userdata else { return 0 }
            return Unmanaged<ExportBox>.fromOpaque(userdata).takeUnretainedValue().answer(message)
        }
        var slot: OpaquePointer?
        let status = sd_bus_add_fallback(bus, &slot, root, callback, Unmanaged.passUnretained(box).toOpaque())
        guard status >= 0 else { throw .errno(status, "exporting objects under \(root)") }
        box.slot = slot
        exports.append(box)
        return DBusExport(box: ObjectIdentifier(box))
    }

    /// Stops serving an exported subtree: calls to it get UnknownObject again.
    public func unexport(_ export: DBusExport) {
        guard let index = exports.firstIndex(where: { ObjectIdentifier($0) == export.box }) else { return }
        sd_bus_slot_unref(exports[index].slot)
        exports.remove(at: index)
    }

    final class ExportBox {
        let handler: (DBusMethodCall) -> DBusMethodOutcome
        var slot: OpaquePointer?

        init(handler: @escaping (DBusMethodCall) -> DBusMethodOutcome) {
            self.handler = handler
        }

        /// 1 when answered here, 0 to let sd-bus answer (unknown method).
        func answer(_ message: OpaquePointer) -> Int32 {
            let header = DBusMessageCoding.header(message)
            let outcome: DBusMethodOutcome
            do {
                let arguments = try DBusMessageCoding.readAll(message)
                outcome = handler(
                    DBusMethodCall(
                        sender: header.sender, path: header.path, interface: header.interface, member: header.member, arguments: arguments))
            } catch {
                outcome = .error(
                    name: "org.freedesktop.DBus.Error.InvalidArgs", message: "\(header.interface).\(header.member) on \(header.path): \(error)")
            }
            switch outcome {
            case .notHandled:
                return 0
            case .reply(let values):
                guard sd_bus_message_get_expect_reply(message) != 0 else { return 1 }
                var reply: OpaquePointer?
                guard sd_bus_message_new_method_return(message, &reply) >= 0, let reply else { return 1 }
                defer { sd_bus_message_unref(reply) }
                do {
                    for value in values { try DBusMessageCoding.append(value, to: reply) }
                } catch {
                    return replyError(message, name: "org.freedesktop.DBus.Error.Failed", text: "cannot encode the reply: \(error)")
                }
                sd_bus_send(nil, reply, nil)
                return 1
            case .error(let name, let text):
                return replyError(message, name: name, text: text)
            }
        }

        private func replyError(_ message: OpaquePointer, name: String, text: String) -> Int32 {
            guard sd_bus_message_get_expect_reply(message) != 0 else { return 1 }
            var error = headsup_sd_bus_error_null()
            defer { sd_bus_error_free(&error) }
            sd_bus_error_set(&error, name, text)
            sd_bus_reply_method_error(message, &error)
            return 1
        }
    }
}

/// One `export(under:handler:)` subtree, to end it with `unexport`.
public struct DBusExport: Hashable, Sendable {
    fileprivate let box: ObjectIdentifier
}
