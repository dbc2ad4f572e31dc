import ArgumentParser
#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Foundation
import Tessera
import TesseraCore
import TesseraServer

/// The entry point: parses the command line, runs the command, and turns what went wrong into one
/// of four exit codes (the README's "Exit codes"):
/// - 0: done;
/// - 1: refused by the server (or by the storage's rules, for `admin`), with its code;
/// - 2: usage: an unknown or missing flag, an invalid value, an unknown configuration key;
/// - 3: a local failure: I/O, the server cannot be reached, no deployment, a wrong PIN, a timeout.
/// Every usage error, found while parsing or while running, is printed in one format (``UsageError``);
/// other failures print `error: …` or `refused: …` only.
@main
enum CLIMain {
    static func main() async {
        // Line-buffered even when stdout is a file or a pipe, so progress (`tessera node`'s ID) is seen at once.
        setvbuf(stdout, nil, _IOLBF, 0)
        let command: any ParsableCommand
        do {
            command = try TesseraCommand.parseAsRoot()
        } catch {
            let code = TesseraCommand.exitCode(for: error)
            if code == .success {
                print(TesseraCommand.fullMessage(for: error))
                exit(0)
            }
            let message = UsageError.text(parserError: error, arguments: Array(CommandLine.arguments.dropFirst()))
            FileHandle.standardError.write(Data((message + "\n").utf8))
            exit(CLIFailure.usage)
        }
        UsageError.command = type(of: command)
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var command = command
                try command.run()
            }
            exit(0)
        } catch where TesseraCommand.exitCode(for: error) == .success {
            // `--help` and `help`: ArgumentParser hands back a help command whose run throws the help text.
            print(TesseraCommand.fullMessage(for: error))
            exit(0)
        } catch {
            let failure = CLIFailure(error)
            if !failure.message.isEmpty {
                fflush(nil)
                FileHandle.standardError.write(Data((failure.message + "\n").utf8))
            }
            exit(failure.status)
        }
    }
}
