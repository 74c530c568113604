import Knapsack

public protocol PaymentGateway: Sendable {}

extension Dependencies {
  public var paymentGateway: Key<any PaymentGateway> { .required() }
}
