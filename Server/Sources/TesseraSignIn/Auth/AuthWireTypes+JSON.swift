import TesseraCore

// The login ceremony's answers, progress events and node requests, written by ``JSONObjectWriter``:
// `JSONEncoder` was 3.7 % of the server's CPU per ceremony (the answers, the events of the progress stream,
// the request to each node). Members sorted by name, as the encoder sorts them; a test holds the bytes equal
// to the encoder's.

extension AuthChannelResponse: JSONObjectWritable {
    public func write(to writer: inout JSONObjectWriter) {
        writer.add("appAttestAssertion", appAttestAssertion)
        writer.add("authType", authType)
        writer.add("challenge", challenge)
        writer.add("channelId", channelId)
        writer.add("clientKey", clientKey)
        writer.add("connectIp", connectIp)
        writer.add("eventsPath", eventsPath)
        writer.add("expiresIn", expiresIn)
        writer.add("message", message)
        writer.add("numberChoices", numberChoices)
        writer.add("rtCode", rtCode)
        writer.add("rtMsg", rtMsg)
        writer.add("userKey", userKey)
    }
}

extension AuthStartResponse: JSONObjectWritable {
    public func write(to writer: inout JSONObjectWriter) {
        writer.add("authType", authType)
        writer.add("nodes", nodes)
        writer.add("rtCode", rtCode)
        writer.add("rtMsg", rtMsg)
    }
}

extension AuthResultResponse: JSONObjectWritable {
    public func write(to writer: inout JSONObjectWriter) {
        writer.add("data", data)
        writer.add("expiresIn", expiresIn)
        writer.add("rtCode", rtCode)
        writer.add("rtMsg", rtMsg)
    }
}

extension AuthEvent: JSONObjectWritable {
    public func write(to writer: inout JSONObjectWriter) {
        writer.add("at", at)
        writer.add("code", code)
        writer.add("outcome", outcome?.rawValue)
        writer.add("status", status?.rawValue)
    }
}

extension NodeAttestRequest: JSONObjectWritable {
    public func write(to writer: inout JSONObjectWriter) {
        writer.add("challenge", challenge)
        writer.add("challengeSignature", challengeSignature)
        writer.add("channelId", channelId)
        writer.add("deviceId", deviceId)
    }
}
