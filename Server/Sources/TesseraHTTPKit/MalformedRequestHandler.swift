import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Answers HTTP that cannot be parsed with a problem document (400, code 1009) and closes the
/// connection.
///
/// Hummingbird turns the parser's errors into a bare 400 without a body when no request is being
/// handled, and into an error thrown from the body stream while one is. This handler sits after the
/// HTTP/1 decoder and takes the first case over: a broken request line or header, or bytes that are
/// not HTTP at all, get the problem document. While a handler is still reading a request's body the
/// error goes on to it, and ``AppError/init(transport:bodyLimit:)`` gives the same problem (broken
/// chunked framing). When the garbage follows a complete request whose answer is still being
/// written, the problem follows that answer.
///
/// The HTTP/1 parser knows a fixed list of methods and refuses any other token as malformed. For
/// the first request of a connection the request line is kept (``RequestLineRecorder``), so such a
/// method on a path that exists gets 405 with `Allow`, as a known method does.
public final class MalformedRequestHandler: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = HTTPRequestPart
    public typealias InboundOut = HTTPRequestPart
    public typealias OutboundIn = HTTPResponsePart
    public typealias OutboundOut = HTTPResponsePart

    private let routes: RouteTable
    private let recorder = RequestLineRecorder()
    /// Request heads read on this connection.
    private var requestsRead = 0

    /// Answers for the routes in `routes` (405 for a path that exists).
    public init(routes: RouteTable) {
        self.routes = routes
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        try? context.pipeline.syncOperations.addHandler(recorder, position: .first)
    }

    /// A request head arrived and its end has not.
    private var readingRequest = false
    /// Requests whose answer has not ended yet.
    private var unanswered = 0
    /// Malformed input arrived while an answer was pending: send the problem after it.
    private var answerWhenIdle = false
    /// The problem was sent; whatever else arrives is dropped.
    private var done = false

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return }
        switch unwrapInboundIn(data) {
        case .head:
            readingRequest = true
            unanswered += 1
            requestsRead += 1
        case .body:
            break
        case .end:
            readingRequest = false
        }
        context.fireChannelRead(data)
    }

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        context.write(data, promise: promise)
        if case .end = unwrapOutboundIn(data) {
            unanswered = max(0, unanswered - 1)
            if unanswered == 0 && answerWhenIdle { answer(context) }
        }
    }

    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard Self.isMalformedInput(error) else { return context.fireErrorCaught(error) }
        guard !done else { return }
        if unanswered == 0 {
            answer(context, unknownMethod: (error as? HTTPParserError) == .invalidMethod && requestsRead == 0)
        } else if readingRequest {
            context.fireErrorCaught(error)  // the handler reading the body answers
        } else {
            answerWhenIdle = true
        }
    }

    static func isMalformedInput(_ error: any Error) -> Bool {
        error is HTTPParserError || error is ByteToMessageDecoderError || error is HTTP1TypeConversionError
    }

    /// Writes the problem, then closes the output: the peer reads the answer, and Hummingbird's
    /// connection ends when the peer closes its side. For a method the parser does not know, the
    /// answer is 405 with `Allow` when the path is routed (404 when it is not).
    private func answer(_ context: ChannelHandlerContext, unknownMethod: Bool = false) {
        done = true
        var problem = AppError.malformedHTTP
        var fields: HTTPFields = [.contentType: "application/problem+json", .connection: "close"]
        if unknownMethod, let path = recorder.path() {
            let methods = routes.methods(for: path)
            if methods.isEmpty {
                problem = AppError(httpError: HTTPError(.notFound))
            } else {
                problem = AppError.methodNotAllowed()
                fields[.allow] = methods.joined(separator: ", ")
            }
        }
        let body = problem.problemBody(requestId: nil)
        fields[.contentLength] = String(body.readableBytes)
        context.write(wrapOutboundOut(.head(HTTPResponse(status: problem.status, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.close(mode: .output, promise: nil)
    }
}

/// Keeps the first line a connection sends (at most 8 KiB), before the HTTP/1 decoder sees it, and
/// then leaves the pipeline (the later reads of a kept-alive connection do not pass through it).
final class RequestLineRecorder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private var line: [UInt8] = []
    private var complete = false

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !complete {
            let bytes = unwrapInboundIn(data).readableBytesView
            if let end = bytes.firstIndex(of: UInt8(ascii: "\n")) {
                line += bytes[..<end]
                complete = true
            } else {
                line += bytes
                complete = line.count > 8192
            }
        }
        context.fireChannelRead(data)
        if complete { context.pipeline.syncOperations.removeHandler(context: context, promise: nil) }
    }

    /// The path of the request line (`METHOD /path?query HTTP/1.x`), if the line has that shape.
    func path() -> String? {
        let parts = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ")
        guard parts.count == 3, parts[2].hasPrefix("HTTP/"), parts[1].hasPrefix("/") else { return nil }
        return String(parts[1].prefix { $0 != "?" })
    }
}
