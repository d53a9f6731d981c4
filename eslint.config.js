// Type-aware lint over the TypeScript sources: typescript-eslint's recommendedTypeChecked, with the
// rules an async server cannot do without made errors (floating and misused promises, switches that
// forget a member of a union) and type-only imports marked as such.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      "dist/",
      ".tmp/",
      ".data/",
      "coverage/",
      "loadtest/reports/",
      "**/*.js",
      "**/*.mjs",
      "**/*.cjs",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/switch-exhaustiveness-check": ["error", { considerDefaultExhaustiveForUnions: true }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      // A leading underscore names what is dropped on purpose (a destructured field left out).
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", ignoreRestSiblings: true, caughtErrors: "none" },
      ],
      // Fastify plugins and hooks, and implementations of async interfaces, are async by contract
      // whether or not their body awaits.
      "@typescript-eslint/require-await": "off",
    },
  },
  {
    files: ["test/**/*.ts"],
    rules: {
      // Tests read answers off the wire as untyped JSON and assert their shape with expect(): the
      // `any` they hold is the point, not a hole in the types.
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      // expect(object.method) and spies pass methods unbound on purpose.
      "@typescript-eslint/unbound-method": "off",
      // Tests build text from the Buffers a child process writes and from untyped JSON answers.
      "@typescript-eslint/restrict-plus-operands": "off",
      "@typescript-eslint/restrict-template-expressions": "off",
    },
  },
);
