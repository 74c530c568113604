// Imports only the app's own module: Swift still makes the container's methods visible here.
import Core

let container = makeAppContainer()
container.register(\.apiToken) { "secret" }
