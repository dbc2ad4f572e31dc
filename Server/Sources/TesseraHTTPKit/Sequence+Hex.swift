extension Sequence where Element == UInt8 {
    /// The bytes as lower-case hex, two digits each, built in one buffer (`String(format: "%02x")` per byte cost a
    /// tenth of a TOTP verification's CPU, and a share of every App Attest challenge).
    package var hexString: String {
        let bytes = Array(self)
        return String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            var index = 0
            for byte in bytes {
                buffer[index] = hexDigits[Int(byte >> 4)]
                buffer[index + 1] = hexDigits[Int(byte & 0x0F)]
                index += 2
            }
            return index
        }
    }
}

/// The digits of ``Swift/Sequence/hexString``.
private let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
