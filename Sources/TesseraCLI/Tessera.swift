import ArgumentParser


struct TesseraCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tessera",
        abstract: "Tessera: passwordless identity and device authentication.",
        subcommands: [
            ServeCommand.self, NodeCommand.self, AdminCommand.self, OutboxCommand.self, DeviceCommand.self, RelyingPartyCommand.self,
            BenchCommand.self,
        ]
    )
}
