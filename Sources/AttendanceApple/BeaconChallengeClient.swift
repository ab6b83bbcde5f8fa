#if canImport(CoreBluetooth) && canImport(CryptoKit) && os(iOS)
import AttendanceAppCore
import AttendanceModels
import AttendanceSync
import CoreBluetooth
import CryptoKit
import Foundation

/// The optional GATT challenge–response (`BeaconChallenge` holds the protocol and is tested on
/// Linux). iOS hides iBeacon frames from CoreBluetooth, so a challenge-capable beacon also
/// advertises `serviceUUID` with its major and minor in the identity characteristic. The client
/// connects, checks the identity, writes the nonce, reads the HMAC and checks it with CryptoKit,
/// all within 3 s.
public final class BeaconChallengeClient: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate, @unchecked Sendable {
    // @unchecked: all state is touched on `queue`, the central manager's queue.
    // `CBUUID` is not Sendable: the identifiers are made where they are used, not kept in statics.
    public static var serviceUUID: CBUUID { CBUUID(string: "6E3A0001-8B1C-4F52-9C1B-5A7F0E2D4C10") }
    /// 4 bytes: major and minor, big-endian.
    public static var identityUUID: CBUUID { CBUUID(string: "6E3A0002-8B1C-4F52-9C1B-5A7F0E2D4C10") }
    /// Write the 16-byte nonce; read back the 32-byte HMAC.
    public static var challengeUUID: CBUUID { CBUUID(string: "6E3A0003-8B1C-4F52-9C1B-5A7F0E2D4C10") }

    private let queue = DispatchQueue(label: "attendance.gatt")
    /// Created on first use (`start()` or a challenge), never at launch: creating one shows iOS's
    /// Bluetooth prompt, which onboarding must explain first.
    private var central: CBCentralManager?
    /// Told each Bluetooth state the manager reports (the engine's `Permissions`).
    private let onState: @Sendable (Permissions.Bluetooth) -> Void
    /// Told that iOS relaunched the app to restore this manager (`bluetooth-central` mode).
    private let onRestored: @Sendable () -> Void
    /// The manager's identity across relaunches: iOS restores the manager of this identifier.
    public static let restoreIdentifier = "com.beaconattendance.challenge"
    private var challenge: BeaconChallenge?
    private var key: SymmetricKey?
    private var peripheral: CBPeripheral?
    private var finish: ((BeaconChallenge.Outcome) -> Void)?
    /// Which challenge a timeout belongs to (a finished one's must not end the next).
    private var generation = 0

    public init(
        onState: @escaping @Sendable (Permissions.Bluetooth) -> Void = { _ in },
        onRestored: @escaping @Sendable () -> Void = {}
    ) {
        self.onState = onState
        self.onRestored = onRestored
        super.init()
    }

    /// Creates the Bluetooth manager (iOS asks for Bluetooth access now, if it has not yet): call
    /// once onboarding has explained why. Its state is then reported to `onState`.
    public func start() {
        queue.async { _ = self.manager() }
    }

    /// On `queue`.
    private func manager() -> CBCentralManager {
        if let central { return central }
        let created = CBCentralManager(
            delegate: self, queue: queue,
            options: [
                CBCentralManagerOptionShowPowerAlertKey: false,
                CBCentralManagerOptionRestoreIdentifierKey: Self.restoreIdentifier,
            ])
        central = created
        return created
    }

    /// Challenges `beacon` with the site key (raw bytes from the Keychain); nil key: `.unavailable`.
    public func verify(_ beacon: BeaconIdentity, key: [UInt8]?) async -> BeaconChallenge.Outcome {
        guard let key, !key.isEmpty else { return .unavailable("no shared key for site \(beacon.major) in the Keychain") }
        var generator = SystemRandomNumberGenerator()
        let challenge = BeaconChallenge(beacon: beacon, at: Date(), using: &generator)
        return await withCheckedContinuation { continuation in
            queue.async {
                // One challenge at a time: a second would take over the first one's callbacks.
                guard self.finish == nil else {
                    continuation.resume(returning: .unavailable("another beacon challenge is under way"))
                    return
                }
                let central = self.manager()
                self.challenge = challenge
                self.key = SymmetricKey(data: key)
                var done = false
                self.finish = { outcome in
                    guard !done else { return }
                    done = true
                    if let peripheral = self.peripheral { central.cancelPeripheralConnection(peripheral) }
                    central.stopScan()
                    self.peripheral = nil
                    self.challenge = nil
                    self.finish = nil
                    continuation.resume(returning: outcome)
                }
                self.generation &+= 1
                let mine = self.generation
                self.queue.asyncAfter(deadline: .now() + BeaconChallenge.timeoutSeconds) {
                    if self.generation == mine { self.finish?(.timedOut) }
                }
                if central.state == .poweredOn { self.scan() }
            }
        }
    }

    private func scan() { central?.scanForPeripherals(withServices: [Self.serviceUUID]) }

    /// iOS relaunched the app for this manager (a connection of a challenge the previous process
    /// began completed after it ended). That challenge's nonce died with the process, so what it
    /// left is let go: its connections cancelled, its scan stopped.
    public func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {
        self.central = central
        for peripheral in dict[CBCentralManagerRestoredStatePeripheralsKey] as? [CBPeripheral] ?? [] {
            central.cancelPeripheralConnection(peripheral)
        }
        if dict[CBCentralManagerRestoredStateScanServicesKey] != nil { central.stopScan() }
        onRestored()
    }

    public func centralManagerDidUpdateState(_ central: CBCentralManager) {
        onState(Self.bluetooth(central.state))
        switch central.state {
        case .poweredOn: if challenge != nil { scan() }
        case .poweredOff: finish?(.unavailable("Bluetooth is off"))
        case .unauthorized: finish?(.unavailable("Bluetooth access is denied"))
        case .unsupported: finish?(.unavailable("no Bluetooth LE"))
        default: break
        }
    }

    static func bluetooth(_ state: CBManagerState) -> Permissions.Bluetooth {
        switch state {
        case .poweredOn: .poweredOn
        case .poweredOff: .poweredOff
        case .unauthorized: .unauthorized
        case .unsupported: .unsupported
        default: .unknown
        }
    }

    public func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi: NSNumber) {
        guard self.peripheral == nil else { return }
        self.peripheral = peripheral
        peripheral.delegate = self
        central.stopScan()
        central.connect(peripheral)
    }

    public func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        peripheral.discoverServices([Self.serviceUUID])
    }

    public func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?) {
        finish?(.unavailable("connection failed: \(error?.localizedDescription ?? "unknown")"))
    }

    public func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        guard let service = peripheral.services?.first(where: { $0.uuid == Self.serviceUUID }) else {
            finish?(.unavailable("the beacon offers no challenge service")); return
        }
        peripheral.discoverCharacteristics([Self.identityUUID, Self.challengeUUID], for: service)
    }

    public func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        guard let identity = service.characteristics?.first(where: { $0.uuid == Self.identityUUID }) else {
            finish?(.unavailable("the beacon has no identity characteristic")); return
        }
        peripheral.readValue(for: identity)
    }

    public func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?) {
        guard let challenge, let value = characteristic.value, error == nil else {
            finish?(.unavailable("read failed: \(error?.localizedDescription ?? "no value")")); return
        }
        let characteristics = characteristic.service?.characteristics ?? []
        if characteristic.uuid == Self.identityUUID {
            let bytes = [UInt8](value)
            guard bytes.count == 4, UInt16(bytes[0]) << 8 | UInt16(bytes[1]) == challenge.beacon.major,
                  UInt16(bytes[2]) << 8 | UInt16(bytes[3]) == challenge.beacon.minor,
                  let challengeCharacteristic = characteristics.first(where: { $0.uuid == Self.challengeUUID }) else {
                finish?(.unavailable("the nearby challenge beacon is not \(challenge.beacon)")); return
            }
            peripheral.writeValue(Data(challenge.nonce), for: challengeCharacteristic, type: .withResponse)
        } else if characteristic.uuid == Self.challengeUUID, let key {
            // CryptoKit's (our own `SHA256` in AttendanceModels has the same name); its comparison is
            // constant-time.
            typealias Code = CryptoKit.HMAC<CryptoKit.SHA256>
            let expected = Code.authenticationCode(for: challenge.message, using: key)
            finish?(
                Code.isValidAuthenticationCode(value, authenticating: challenge.message, using: key)
                    && value.count == expected.byteCount ? .verified : .mismatch)
        }
    }

    public func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: (any Error)?) {
        if let error { finish?(.unavailable("writing the nonce failed: \(error.localizedDescription)")); return }
        peripheral.readValue(for: characteristic)
    }
}
#endif
