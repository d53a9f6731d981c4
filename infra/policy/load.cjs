// The Pulumi CLI loads a policy pack with require() and ts-node in CommonJS mode; the pack is ESM
// TypeScript like the program, so it is handed to tsx here (the program itself runs with
// --import=tsx). The CLI awaits what the module exports.
module.exports = import("tsx/esm/api").then(({ tsImport }) => tsImport("./index.ts", __filename));
