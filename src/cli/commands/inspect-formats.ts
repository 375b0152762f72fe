/** What `got inspect --format` can export (its own module: the CLI declares the option without loading the exporters). */
export const INSPECT_FORMATS = ['summary', 'json', 'dot', 'mermaid', 'html'] as const;

/** One of INSPECT_FORMATS. */
export type InspectFormat = (typeof INSPECT_FORMATS)[number];
