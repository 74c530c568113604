// The sources of this module are generated at build time by the S4Sources plugin
// (Benchmarks/Plugins/S4Sources), which runs Benchmarks/Sources/S4Generator.
