import ArgumentParser
import TesseraCore

struct TesseraCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tessera",
        abstract: "Tessera: passwordless identity and device authentication.",
        version: TesseraVersion.current,
        subcommands: [
            ServeCommand.self, NodeCommand.self, AdminCommand.self, OutboxCommand.self, DeviceCommand.self, RelyingPartyCommand.self, ProbeCommand.self,
        ]
    )
}
