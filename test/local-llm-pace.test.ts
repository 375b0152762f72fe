import { describe, expect, it } from 'vitest';
import { PACE, PromptPace } from '../src/localllm/pace';

describe("the local server's pace of reading prompts", () => {
  it('sets no first-token deadline before it has measured a prompt', () => {
    expect(new PromptPace().firstTokenWithinMs(3_500)).toBeUndefined();
  });

  it("gives a prompt its size's time at the measured pace, with margin and slack", () => {
    const pace = new PromptPace();
    pace.observe(2_000, 40_000); // 50 tokens a second
    expect(pace.measured).toBe(50);
    // 3,500 tokens at 50/s: 70 s, four times over, plus the slack.
    expect(pace.firstTokenWithinMs(3_500)).toBe(PACE.slackMs + 70_000 * PACE.margin);
    expect(pace.firstTokenWithinMs(7_000)!).toBeGreaterThan(pace.firstTokenWithinMs(3_500)!);
  });

  it('learns from later prompts smoothly, and ignores prompts too short to say', () => {
    const pace = new PromptPace();
    pace.observe(2_000, 40_000);
    pace.observe(10, 1); // a few tokens, mostly cached: says nothing of the pace
    expect(pace.measured).toBe(50);
    pace.observe(2_000, 20_000); // 100 a second on a quieter machine
    expect(pace.measured).toBeCloseTo(50 * (1 - PACE.weight) + 100 * PACE.weight, 6);
  });
});
