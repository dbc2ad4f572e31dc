/// Whether a URL's host is this machine (`localhost`, `127.x.x.x`, `::1`): where plain http is allowed for a
/// webhook or a CIBA notification endpoint, since nothing leaves the host.
public enum LoopbackHost {
    public static func contains(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }
}
