// This file names none of the library's own words and provides the required key only through a
// helper declared in another module: it must be read, or the key would count as never provided.
import Feature
import Keys

let container = Feature.makeContainer()
container.singleton(\.clock) { 42 }
