import NIOCore
import NIOSSL

/// What a connection reports to the client: parsed operations in order, then the end (with the reason if it failed).
enum ConnectionEvent: Sendable {
    case operation(ServerOperation)
    case failed(NATSError)
}

/// The NIO end of one connection: feeds received bytes to the protocol parser and forwards each operation, in
/// order, to the client's stream. It answers the server's PING itself (no hop through the client), and closes the
/// channel on a protocol violation, since the byte stream cannot be resynchronised.
final class NATSChannelHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var parser: NATSProtocolParser
    private let events: AsyncStream<ConnectionEvent>.Continuation

    init(limits: NATSProtocolParser.Limits, events: AsyncStream<ConnectionEvent>.Continuation) {
        self.parser = NATSProtocolParser(limits: limits)
        self.events = events
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        parser.append(buffer.readableBytesView)
        do {
            while let operation = try parser.next() {
                switch operation {
                case .ping:
                    var pong = context.channel.allocator.buffer(capacity: 6)
                    ClientCommand.writePong(into: &pong)
                    context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
                case .info(let info):
                    // Messages may be as large as the server allows, and no larger.
                    if info.maxPayload > 0 { parser.limits.maxPayload = info.maxPayload }
                    events.yield(.operation(operation))
                default:
                    events.yield(.operation(operation))
                }
            }
        } catch {
            events.yield(.failed(error))
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        events.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        let isTLS = error is NIOSSLError || error is BoringSSLError
        let reason: NATSError = isTLS ? .tlsFailure("\(error)") : .disconnected
        events.yield(.failed(reason))
        context.close(promise: nil)
    }
}

