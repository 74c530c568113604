import Core

// The file's only call is a contribution (the module it imports re-exports the library): it is
// read, and the loop through it found.
func wire(_ appContainer: Container) {
  appContainer.contribute(to: \.sinks) { r in try r[\.audit] }
}
