import Foundation

/// The CPU time (user + system) processes have used so far, from `/proc/<pid>/stat`: the bench reads the
/// server's (and its embedded nodes') around the measured phase only, not the sign-ups before it.
struct ServerCPU {
    let pids: [Int32]

    /// Seconds of CPU used by `pids` so far; 0 for a process that is gone or on a system without /proc.
    func seconds() -> Double {
        let hertz = Double(sysconf(Int32(_SC_CLK_TCK)))
        return pids.reduce(0) { total, pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")")
            else { return total }
            // After "pid (comm) ": state is field 3, utime field 14, stime field 15.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return total }
            return total + (user + system) / hertz
        }
    }

    /// `CPU {"server_cpu_s":…,"cpu_ms_per_op":…}` for the RESULT line before it.
    static func report(seconds: Double, operations: Int) {
        print(String(format: #"CPU {"server_cpu_s":%.3f,"cpu_ms_per_op":%.3f}"#, seconds, operations > 0 ? seconds * 1000 / Double(operations) : 0))
    }
}
