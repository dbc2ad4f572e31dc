extension BidirectionalCollection where Element == UInt8, SubSequence == Self {
    /// These bytes without the spaces and tabs around them (HTTP's optional whitespace, RFC 9110
    /// §5.6.3), for header values parsed byte by byte.
    public func trimmingOptionalWhitespace() -> Self {
        var bytes = self
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes = bytes.dropLast() }
        return bytes
    }
}
