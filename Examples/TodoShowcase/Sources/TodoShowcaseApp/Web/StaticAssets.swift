import Hummingbird

/// The files served under `/static/`: the stylesheet and any client script. The page's
/// Content-Security-Policy allows only scripts and styles from here, never inline ones, so a
/// new client script is added to ``files`` and referenced with `<script src="/static/NAME">`.
enum StaticAssets {
  /// Each file's name, content type and text.
  static let files: [String: (contentType: String, text: String)] = [
    "app.css": ("text/css; charset=utf-8", Layout.stylesheet + StyleLesson.stylesheet + ListStyles.stylesheet),
    "live.js": ("text/javascript; charset=utf-8", LiveUpdates.script),
  ]

  static func add(to router: Router<BasicRequestContext>) {
    router.get("/static/:file") { _, context in
      guard let name = context.parameters.get("file"), let file = files[name] else {
        throw HTTPError(.notFound)
      }
      return Response(
        status: .ok,
        headers: [.contentType: file.contentType, .cacheControl: "no-cache"],
        body: ResponseBody(byteBuffer: ByteBuffer(string: file.text))
      )
    }
  }
}
