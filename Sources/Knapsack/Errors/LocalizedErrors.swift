#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The full message as the error's localized description, so that code that shows or logs
/// `error.localizedDescription` gets what `"\(error)"` prints, not the generic "The operation
/// could not be completed".
extension ResolutionError: LocalizedError {
  /// The same text as ``description``.
  public var errorDescription: String? { description }
}

/// The full message as the error's localized description (see ``ResolutionError``'s).
extension DisposalError: LocalizedError {
  /// The same text as ``description``.
  public var errorDescription: String? { description }
}
