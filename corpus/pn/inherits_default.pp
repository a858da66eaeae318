class foo inherits default {}
