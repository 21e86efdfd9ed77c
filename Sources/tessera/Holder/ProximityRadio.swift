import Foundation
import ProximityTransport

/// The radio the CLI uses: on Linux the loopback radio (processes on this machine meet through Unix sockets,
/// over the same ISO 18013-5 GATT protocol code as BLE), with its prerequisite gate.
enum ProximityRadio {
    static func loopback(directory: String?) throws -> (transport: BLETransport, gate: LoopbackRadioGate) {
        let url = directory.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? LoopbackRadio.defaultDirectory
        let radio = LoopbackRadio(directory: url, scanTimeout: .seconds(10))
        return (BLETransport(radio: radio), LoopbackRadioGate(directory: url))
    }
}
