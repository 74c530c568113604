#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which names a request's `Host` may give, so a page on another site whose name was re-pointed
/// at this server (DNS rebinding) cannot read or change the list.
///
/// - On a loopback address: loopback names only (see ``HostNames/isLoopbackName(_:)``).
/// - On any other address (`0.0.0.0`, a LAN address): also IP addresses, which no rebinding
///   page can have as its origin.
/// - On either: the names given with `--allowed-host` (a name in DNS or `/etc/hosts` that points
///   at this machine).
struct HostPolicy: Sendable, Equatable {
  /// Whether the server listens on a loopback address.
  var loopbackOnly: Bool
  /// The names given with `--allowed-host`, lowercased, without a trailing dot.
  var allowedNames: [String]

  init(listenHost: String, allowedNames: [String] = []) {
    loopbackOnly = HostNames.isLoopbackAddress(listenHost)
    self.allowedNames = allowedNames.map(Self.canonicalName)
  }

  /// `name` as it is compared: lowercased, without a trailing dot.
  static func canonicalName(_ name: String) -> String {
    var name = name.lowercased()
    if name.hasSuffix(".") { name.removeLast() }
    return name
  }

  /// Whether `name` can be given to `--allowed-host`: a DNS name (letters, digits, `-`, `_` and
  /// dots, no empty label) without a port.
  static func isValidName(_ name: String) -> Bool {
    let name = canonicalName(name)
    let labels = name.split(separator: ".", omittingEmptySubsequences: false)
    return !name.isEmpty && name.utf8.count <= 253
      && labels.allSatisfy { label in
        !label.isEmpty && label.count <= 63
          && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
      }
  }

  /// Whether a request whose `Host` is `authority` (`name`, `name:port`, `[v6]:port`) is answered.
  func accepts(authority: String) -> Bool {
    guard Self.isHostAndPort(authority) else { return false }
    let host = HostNames.hostPart(ofAuthority: authority)
    if HostNames.isLoopbackName(host) { return true }
    if allowedNames.contains(Self.canonicalName(host)) { return true }
    return !loopbackOnly && HostNames.isIPAddress(host)
  }

  /// Whether `authority` is a host and, after it, nothing or a port: `localhost:1@evil.example`,
  /// `localhost:8080<script>` or `[::1]junk` names no host.
  static func isHostAndPort(_ authority: String) -> Bool {
    let host = HostNames.hostPart(ofAuthority: authority)
    let rest = authority.dropFirst(host.count)
    return !host.isEmpty
      && (rest.isEmpty
        || (rest.first == ":" && (2...6).contains(rest.count)
          && rest.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }))
  }

  /// Why a request naming `hosts` is refused, or `nil` when each is accepted (a request without
  /// `Host`, which no browser sends, cannot be a rebinding page). The advice to start the server
  /// with `--allowed-host` is given only for a name it would take; an IP address refused on
  /// loopback needs the server to listen beyond it.
  func refusalReason(_ hosts: [String]) -> String? {
    guard let refused = hosts.first(where: { !accepts(authority: $0) }) else { return nil }
    let foreign = EscapedText.echoed(refused)
    let name = HostNames.hostPart(ofAuthority: refused)
    let advice =
      if !Self.isHostAndPort(refused) {
        ", which is not a host name or address with an optional port"
      } else if HostNames.isIPAddress(name) {
        "; to answer IP addresses, listen beyond loopback (--host 0.0.0.0 or a LAN address)"
      } else if Self.isValidName(name) {
        "; to accept that name, start it with --allowed-host \(name)"
      } else {
        ", which is not a valid host name"
      }
    if loopbackOnly {
      return "this server listens on loopback only and does not answer for the host \(foreign)\(advice)"
    }
    return "this server answers only IP addresses, loopback names and names given with --allowed-host, "
      + "not the host \(foreign)\(advice)"
  }

  /// The start-up warning for a server that listens beyond loopback, nil on loopback: the
  /// showcase has no sign-in and no TLS, so whoever reaches the port reads and changes the list.
  var exposureWarning: String? {
    guard !loopbackOnly else { return nil }
    return "warning: listening beyond loopback with no sign-in and no TLS: anyone who can reach this port can "
      + "read and change the list; put it behind a proxy that authenticates and terminates TLS, "
      + "or listen on 127.0.0.1"
  }

  /// The start-up line that says which `Host` values are answered.
  var announcement: String {
    var kinds = loopbackOnly ? ["loopback names"] : ["IP addresses", "loopback names"]
    if !allowedNames.isEmpty { kinds.append(allowedNames.joined(separator: ", ")) }
    let list = kinds.count == 1 ? kinds[0] : kinds.dropLast().joined(separator: ", ") + " and " + (kinds.last ?? "")
    return "Accepting Host: \(list)"
      + (allowedNames.isEmpty ? " (add a name with --allowed-host NAME)" : "")
  }
}

extension HostNames {
  /// Whether `host` (without port) is an IPv4 address in dotted decimal or an IPv6 address in
  /// brackets, as a `Host` header gives them.
  static func isIPAddress(_ host: String) -> Bool {
    if host.hasPrefix("["), host.hasSuffix("]") {
      var ipv6 = in6_addr()
      return inet_pton(AF_INET6, String(host.dropFirst().dropLast()), &ipv6) == 1
    }
    var ipv4 = in_addr()
    return inet_pton(AF_INET, host, &ipv4) == 1
  }
}
