/// The version of this Tessera build (semantic versioning; releases are tagged `vMAJOR.MINOR.PATCH`).
/// `tessera --version` prints it; between releases it names the next one with `-dev`.
public enum TesseraVersion {
    /// For example `0.2.0-dev`.
    public static let current = "0.2.0-dev"
}
