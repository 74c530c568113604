// expected-error: a required key has no default: register its value where the app is put together
import Knapsack

extension Dependencies {
  var apiBaseURL: Key<String> { .required("https://example.com") }
}
