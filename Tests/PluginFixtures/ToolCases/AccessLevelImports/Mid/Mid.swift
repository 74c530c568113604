public import Keys

public func hello() {}
