// libFuzzer entry point for the D-Bus value decoder (DBusMessageCoding: the
// header, PropertiesChanged's property names, every value) on messages as
// sd-bus receives them from a peer: each input becomes a signal whose
// signature and body come from the input, written raw to a socket whose
// other end is an sd-bus connection (a peer-to-peer one, anonymous, no bus
// daemon). sd-bus checks a body lazily, as it is read, so a damaged body
// reaches the decoder (target fuzz-dbus-values): any crash, trap or
// sanitizer report fails it. `swift build` makes it a replayer of its
// corpus; `make fuzz` a fuzzer.
import CSDBus
import FuzzReplay
import Glibc
import HeadsUpDBus

/// The receiving connection and the raw end of its socket.
nonisolated(unsafe) var peer: (bus: OpaquePointer, raw: Int32)?

/// A connected pair: an sd-bus server on one end, the raw socket on the other,
/// past the SASL handshake (ANONYMOUS), which is done by hand on the raw end.
func connect() -> (bus: OpaquePointer, raw: Int32)? {
    var ends: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else { return nil }
    var bus: OpaquePointer?
    var id = sd_id128_t()
    _ = sd_id128_randomize(&id)
    guard sd_bus_new(&bus) >= 0, let bus, sd_bus_set_fd(bus, ends[0], ends[0]) >= 0, sd_bus_set_server(bus, 1, id) >= 0,
        sd_bus_set_anonymous(bus, 1) >= 0, sd_bus_start(bus) >= 0
    else {
        close(ends[0])
        close(ends[1])
        return nil
    }
    let hello = Array("\0AUTH ANONYMOUS\r\nBEGIN\r\n".utf8)
    _ = hello.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
    // Let the server read the handshake and answer (OK <guid>), then drop the answer.
    for _ in 0..<8 { _ = sd_bus_process(bus, nil) }
    var scratch = [UInt8](repeating: 0, count: 256)
    _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
    while read(ends[1], &scratch, scratch.count) > 0 {}
    return (bus, ends[1])
}

/// The signature characters an input's bytes pick from (each byte modulo the count).
let signatureAlphabet = Array("ybnqiuxtdsogvah(){}".utf8)

func append32(_ value: UInt32, to bytes: inout [UInt8]) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }

func pad(_ bytes: inout [UInt8], to alignment: Int) { while bytes.count % alignment != 0 { bytes.append(0) } }

/// A little-endian signal message: PATH, INTERFACE, MEMBER and SIGNATURE header fields, then `body`.
func message(signature: [UInt8], body: [UInt8], serial: UInt32) -> [UInt8] {
    var fields: [UInt8] = []
    func stringField(_ code: UInt8, _ type: UInt8, _ text: String) {
        pad(&fields, to: 8)
        fields += [code, 1, type, 0]
        append32(UInt32(text.utf8.count), to: &fields)
        fields += Array(text.utf8) + [0]
    }
    stringField(1, UInt8(ascii: "o"), "/org/bluez/hci0/dev_01")
    stringField(2, UInt8(ascii: "s"), "org.freedesktop.DBus.Properties")
    stringField(3, UInt8(ascii: "s"), "PropertiesChanged")
    if !signature.isEmpty {
        pad(&fields, to: 8)
        fields += [8, 1, UInt8(ascii: "g"), 0, UInt8(signature.count)] + signature + [0]
    }
    var bytes: [UInt8] = [UInt8(ascii: "l"), 4, 0, 1]
    append32(UInt32(body.count), to: &bytes)
    append32(serial, to: &bytes)
    append32(UInt32(fields.count), to: &bytes)
    bytes += fields
    pad(&bytes, to: 8)
    return bytes + body
}

nonisolated(unsafe) var serial: UInt32 = 0

func fuzzDBusValues(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = input.first else { return 0 }
    let length = min(Int(first) % 64, input.count - 1)
    // The common shapes first: PropertiesChanged's own signature for a zero length byte.
    let signature =
        length == 0 ? Array("sa{sv}as".utf8) : input[1...length].map { signatureAlphabet[Int($0) % signatureAlphabet.count] }
    let body = Array(input[(1 + length)...].prefix(1 << 16))
    if peer == nil { peer = connect() }
    guard let (bus, raw) = peer else { return 0 }
    serial = serial &+ 1
    let bytes = message(signature: signature, body: body, serial: max(1, serial))
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { write(raw, $0.baseAddress, $0.count) }
        if written <= 0 { break }
        offset += written
    }
    var broken = false
    for _ in 0..<4 {
        var received: OpaquePointer?
        let result = sd_bus_process(bus, &received)
        if result < 0 {
            broken = true
            break
        }
        if let received {
            _ = DBusMessageCoding.header(received)
            _ = DBusMessageCoding.changedPropertyNames(received)
            if let values = try? DBusMessageCoding.readAll(received) {
                // What decodes must describe itself and keep its signature.
                for value in values { _ = value.description + value.signature }
            }
            sd_bus_message_unref(received)
        }
        if result == 0 { break }
    }
    // A message sd-bus refuses ends the connection: the next input gets a new one.
    if broken || sd_bus_is_open(bus) <= 0 {
        sd_bus_flush_close_unref(bus)
        close(raw)
        peer = nil
    }
    return 0
}

@main enum Fuzzer {
    static func main() { FuzzReplay.main(target: "dbus-values", fuzzDBusValues) }
}
