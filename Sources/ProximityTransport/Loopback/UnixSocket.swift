import Foundation

#if canImport(Glibc)
import Glibc
private let streamType = Int32(SOCK_STREAM.rawValue)
private let sendFlags = Int32(MSG_NOSIGNAL)
#elseif canImport(Musl)
import Musl
private let streamType = Int32(SOCK_STREAM)
private let sendFlags = Int32(MSG_NOSIGNAL)
#elseif canImport(Darwin)
import Darwin
private let streamType = SOCK_STREAM
private let sendFlags: Int32 = 0
#endif

/// Thin POSIX wrappers for Unix domain stream sockets: the loopback radio's wire. Errors are plain errno values.
enum UnixSocket {
    struct Failure: Error {
        let call: String
        let errno: Int32
    }

    /// The longest path `sockaddr_un` holds (terminating NUL excluded).
    static var maximumPathLength: Int {
        MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1
    }

    private static func address(_ path: String) throws(Failure) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count <= maximumPathLength else { throw Failure(call: "sockaddr_un", errno: ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    private static func makeSocket() throws(Failure) -> Int32 {
        let fd = socket(AF_UNIX, streamType, 0)
        guard fd >= 0 else { throw Failure(call: "socket", errno: errno) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        #if canImport(Darwin)
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        return fd
    }

    /// A listening socket bound to `path`.
    static func listen(path: String, backlog: Int32 = 4) throws(Failure) -> Int32 {
        var address = try address(path)
        let fd = try makeSocket()
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            let error = errno
            _ = close(fd)
            throw Failure(call: "bind", errno: error)
        }
        guard posixListen(fd, backlog) == 0 else {
            let error = errno
            _ = close(fd)
            throw Failure(call: "listen", errno: error)
        }
        return fd
    }

    /// A socket connected to `path`.
    static func connect(path: String) throws(Failure) -> Int32 {
        var address = try address(path)
        let fd = try makeSocket()
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                posixConnect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let error = errno
            _ = close(fd)
            throw Failure(call: "connect", errno: error)
        }
        return fd
    }

    /// Accepts one connection; nil when `accept` fails (the caller checks whether it is stopping).
    static func accept(_ listener: Int32) -> Int32? {
        while true {
            let fd = posixAccept(listener, nil, nil)
            if fd >= 0 {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                #if canImport(Darwin)
                var on: Int32 = 1
                _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
                #endif
                return fd
            }
            if errno == EINTR { continue }
            return nil
        }
    }

    /// Writes all of `bytes` (no SIGPIPE when the peer is gone).
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress.map { $0 + offset }, bytes.count - offset, sendFlags)
            }
            if sent < 0 {
                if errno == EINTR { continue }
                throw Failure(call: "send", errno: errno)
            }
            offset += sent
        }
    }

    /// Reads what is there (blocking); 0 at end of stream, nil on error.
    static func receive(_ fd: Int32, into buffer: inout [UInt8]) -> Int? {
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count >= 0 { return count }
            if errno == EINTR { continue }
            return nil
        }
    }

    /// Waits until `fd` or `wake` is readable; true if `fd` is.
    static func waitReadable(_ fd: Int32, wake: Int32) -> Bool {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        while true {
            let result = poll(&fds, nfds_t(fds.count), -1)
            if result < 0 && errno == EINTR { continue }
            if result < 0 { return false }
            if fds[1].revents != 0 { return false }
            return fds[0].revents != 0
        }
    }

    /// A pipe used to wake a thread blocked in `poll`.
    static func makePipe() throws(Failure) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw Failure(call: "pipe", errno: errno) }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        return (fds[0], fds[1])
    }

    static func wake(_ fd: Int32) {
        var byte: UInt8 = 1
        _ = write(fd, &byte, 1)
    }

    /// Ends both directions: a thread blocked in `recv` on `fd` returns 0.
    static func shutdownBoth(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }

    static func closeDescriptor(_ fd: Int32) {
        _ = close(fd)
    }

    static func unlinkPath(_ path: String) {
        _ = unlink(path)
    }

    static var currentUserID: UInt32 { UInt32(getuid()) }
}

// The socket calls share their names with this enum's static methods; these aliases keep the calls unambiguous.
private func posixListen(_ fd: Int32, _ backlog: Int32) -> Int32 { listen(fd, backlog) }
private func posixConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    connect(fd, address, length)
}
private func posixAccept(
    _ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: UnsafeMutablePointer<socklen_t>?
) -> Int32 {
    accept(fd, address, length)
}
