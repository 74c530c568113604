import Hummingbird

/// The files served under `/static/`: the stylesheet, the icon and any client script. The page's
/// Content-Security-Policy allows only scripts and styles from here, never inline ones, so a
/// new client script is added to ``files`` and referenced with `<script src="/static/NAME">`.
/// The icon is also served at `/favicon.ico`, where browsers and other clients look for one.
enum StaticAssets {
  /// Each file's name, content type and text.
  static let files: [String: (contentType: String, text: String)] = [
    "app.css": ("text/css; charset=utf-8", Layout.stylesheet + StyleLesson.stylesheet + ListStyles.stylesheet),
    "live.js": ("text/javascript; charset=utf-8", LiveUpdates.script),
    "icon.svg": ("image/svg+xml", icon),
  ]

  /// A ticked box, the page's icon.
  static let icon = """
    <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">\
    <rect x="2" y="2" width="28" height="28" rx="6" fill="#3b5bdb"/>\
    <path d="M9 16.5l5 5 9-11" fill="none" stroke="#fff" stroke-width="3.5" stroke-linecap="round" \
    stroke-linejoin="round"/></svg>

    """

  static func add(to router: Router<BasicRequestContext>) {
    router.get("/static/:file") { _, context in
      guard let name = context.parameters.get("file"), let file = files[name] else {
        throw HTTPError(.notFound)
      }
      return response(file)
    }
    router.get("/favicon.ico") { _, _ in
      response(("image/svg+xml", icon))
    }
  }

  private static func response(_ file: (contentType: String, text: String)) -> Response {
    Response(
      status: .ok,
      headers: [.contentType: file.contentType, .cacheControl: "no-cache"],
      body: ResponseBody(byteBuffer: ByteBuffer(string: file.text))
    )
  }
}
