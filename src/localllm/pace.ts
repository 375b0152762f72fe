/**
 * How fast this server reads prompts, measured on the requests it serves: what a streamed answer's
 * first token may take (decision 90). Before its first token an answer sends keep-alives, so a
 * client's stall detector does not give up on a long prompt being read; bounded by the prompt's size
 * at the measured pace, so a model that never gets to its first token still falls silent, and the
 * call is ended and asked again. After the first token, only tokens keep a stream alive.
 */
export class PromptPace {
  private tokensPerSecond: number | undefined;

  /** `tokens` prompt tokens were read in `ms` before a first token (waiting for a sequence included: the pace errs slow). */
  observe(tokens: number, ms: number): void {
    if (tokens < PACE.minTokens || ms <= 0) return;
    const speed = (tokens / ms) * 1000;
    // Smoothed, so one quick prompt (an idle machine) does not shorten every later deadline at once.
    this.tokensPerSecond = this.tokensPerSecond === undefined ? speed : (1 - PACE.weight) * this.tokensPerSecond + PACE.weight * speed;
  }

  /** How long a prompt of `tokens` may take to its first token; undefined until a pace was measured (no bound then). */
  firstTokenWithinMs(tokens: number): number | undefined {
    if (this.tokensPerSecond === undefined) return undefined;
    return PACE.slackMs + (tokens / this.tokensPerSecond) * 1000 * PACE.margin;
  }

  get measured(): number | undefined {
    return this.tokensPerSecond;
  }
}

/** The pace's settings: prompts shorter than `minTokens` say little of it; a deadline is `margin` × the expected read plus `slackMs`. */
export const PACE = { minTokens: 64, weight: 0.3, margin: 4, slackMs: 120_000 } as const;
