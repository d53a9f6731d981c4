/**
 * Money as integers: prices are kept in micro-dollars per million tokens (USD per million × 10^6),
 * costs in micro-dollars. A run's cost is tokens × price ÷ 10^6, rounded up to the micro-dollar per
 * line (input, cached input, output), so a run is never billed less than its tokens cost. BigInt
 * keeps the product exact whatever the counts (a hostile upstream may report any count).
 */

/** An agent's prices, micro-dollars per million tokens. */
export interface Price {
  input: number;
  output: number;
  /** Cached prompt tokens, when the upstream reports them; absent: the input price. */
  cachedInput?: number;
}

/** A run's tokens as metered. */
export interface MeteredTokens {
  prompt: number;
  /** Of the prompt tokens, those the upstream served from its cache. */
  cached?: number;
  completion: number;
}

/** The cost of one run, split as OpenAI's costs API splits line items. */
export interface RunCost {
  input: number;
  output: number;
}

export const MICROS_PER_USD = 1_000_000;

/** The most USD per million tokens a price may say (a typo guard: today's dearest models are ~$600). */
export const MAX_PRICE_USD = 100_000;

/** Micro-dollars per million tokens of a price in USD per million; undefined unless it is exact to the micro-dollar. */
export function priceMicros(usdPerMillion: number): number | undefined {
  if (!Number.isFinite(usdPerMillion) || usdPerMillion < 0 || usdPerMillion > MAX_PRICE_USD) return undefined;
  const micros = Math.round(usdPerMillion * MICROS_PER_USD);
  return Math.abs(micros - usdPerMillion * MICROS_PER_USD) < 1e-6 * Math.max(1, micros) ? micros : undefined;
}

/** Micro-dollars of `tokens` at `microsPerMillion`, rounded up. */
export function tokensCost(tokens: number, microsPerMillion: number): number {
  if (tokens <= 0 || microsPerMillion <= 0) return 0;
  const product = BigInt(Math.floor(tokens)) * BigInt(microsPerMillion);
  const whole = product / 1_000_000n;
  return Number(product % 1_000_000n === 0n ? whole : whole + 1n);
}

/** A run's cost at `price` (none: 0). Cached tokens are at most the prompt's. */
export function runCost(price: Price | undefined, tokens: MeteredTokens): RunCost {
  if (!price) return { input: 0, output: 0 };
  const cached = Math.min(Math.max(0, tokens.cached ?? 0), tokens.prompt);
  const input = tokensCost(tokens.prompt - cached, price.input) + tokensCost(cached, price.cachedInput ?? price.input);
  return { input, output: tokensCost(tokens.completion, price.output) };
}

/** Micro-dollars as USD, for the wire (exact to the micro-dollar). */
export const usd = (micros: number) => micros / MICROS_PER_USD;

/** USD as micro-dollars, rounded to the nearest (a budget's limit as a client writes it). */
export const microsOf = (usdAmount: number) => Math.round(usdAmount * MICROS_PER_USD);
