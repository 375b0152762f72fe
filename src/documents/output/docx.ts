import {
  AlignmentType,
  Document,
  HeadingLevel,
  LevelFormat,
  Packer,
  Paragraph,
  Table,
  TableCell,
  TableRow,
  TextRun,
  WidthType,
} from 'docx';
import {
  keptNote,
  type LaidOutBlock,
  type Layout,
  layoutOf,
  type MergedOutput,
  noteText,
  repeatedNote,
  segmentsOf,
  UNSUPPORTED_MARK,
} from './layout';

/**
 * The `.docx` output: the merged headings as Word's Heading 1-3 styles, numbered clauses as Word
 * numbered paragraphs when Word would print their numbers as written (else the numbers stay text),
 * and with a review, each block's sources in a small grey run after it ("[nda1.pdf §3 p.2]"),
 * unsupported clauses highlighted and marked, and a final "Disagreements" section.
 */

const NUMBERING = 'merged-clauses';
const HEADINGS = [HeadingLevel.HEADING_1, HeadingLevel.HEADING_2, HeadingLevel.HEADING_3] as const;
/** Twips (1/20 pt): how far each clause level indents, and the hanging room for its number. */
const INDENT = 567;
const NOTE_SIZE = 16; // half-points: 8 pt
const NOTE_COLOR = '6B7280';
const FLAG_COLOR = 'B3261E';

/** The merged output as a DOCX file's bytes. */
export async function toDocx(o: MergedOutput): Promise<Buffer> {
  const layout = layoutOf(o);
  const body: (Paragraph | Table)[] = layout.blocks.map((b) => blockParagraph(o.merged, b, layout));
  if (layout.review) body.push(...disagreementsSection(layout));
  const doc = new Document({
    title: layout.title,
    creator: 'durable-got',
    description: layout.review
      ? `Merged by durable-got; ${layout.review.counts.supported} of ${layout.review.counts.clauses} clauses found in the sources.`
      : 'Merged by durable-got.',
    numbering: {
      config: [
        {
          reference: NUMBERING,
          // Legal numbering ("4.2"), as the merged text writes it; see numberedLikeWord.
          levels: ['%1.', '%1.%2', '%1.%2.%3'].map((text, level) => ({
            level,
            format: LevelFormat.DECIMAL,
            text,
            alignment: AlignmentType.START,
            style: { paragraph: { indent: { left: INDENT * (level + 1), hanging: INDENT } } },
          })),
        },
      ],
    },
    sections: [{ children: body }],
  });
  return Packer.toBuffer(doc);
}

function blockParagraph(merged: string, b: LaidOutBlock, layout: Layout): Paragraph {
  // Continuation lines of a block are one paragraph in Word, as they were one in the text.
  const runs: TextRun[] = segmentsOf(merged, b).map(
    (s) => new TextRun({ text: s.text.replace(/\s*\n\s*/g, ' '), ...(s.unsupported ? { highlight: 'yellow' as const } : {}) }),
  );
  const numbered = b.number !== undefined && layout.wordNumbering;
  // Without Word numbering the number stays in the text, ahead of a tab to the hanging indent.
  const marker = b.marker && !numbered ? [new TextRun({ text: b.kind === 'heading' ? `${b.marker} ` : `${b.marker}\t` })] : [];
  const note = layout.review ? noteRuns(b) : [];
  const children = [...marker, ...runs, ...note];
  const numbering = numbered ? { numbering: { reference: NUMBERING, level: b.number!.split('.').length - 1 } } : {};
  if (b.kind === 'heading') return new Paragraph({ heading: HEADINGS[b.level - 1], keepNext: true, children, ...numbering });
  if (b.kind === 'clause' && !numbered) {
    return new Paragraph({ children, indent: { left: INDENT * b.level, hanging: INDENT } });
  }
  return new Paragraph({ children, ...numbering });
}

function noteRuns(b: LaidOutBlock): TextRun[] {
  const note = noteText(b);
  const runs: TextRun[] = [];
  if (note.sources) runs.push(new TextRun({ text: ` [${note.sources}]`, size: NOTE_SIZE, color: NOTE_COLOR }));
  if (note.unsupported) runs.push(new TextRun({ text: ` [${UNSUPPORTED_MARK}]`, size: NOTE_SIZE, color: FLAG_COLOR, bold: true }));
  return runs;
}

function disagreementsSection(layout: Layout): (Paragraph | Table)[] {
  const review = layout.review!;
  const { clauses, supported, unsupported } = review.counts;
  const intro = new Paragraph({
    children: [
      new TextRun(`${supported} of ${clauses} clauses were found in the sources`),
      ...(unsupported
        ? [new TextRun({ text: `; ${unsupported} without a source (highlighted, marked “${UNSUPPORTED_MARK}”)`, color: FLAG_COLOR })]
        : []),
      ...(review.counts.repeated ? [new TextRun({ text: repeatedNote(review.counts), color: FLAG_COLOR })] : []),
      ...(review.kept ? [new TextRun(keptNote(review))] : []),
      new TextRun('.'),
    ],
  });
  const heading = new Paragraph({ heading: HeadingLevel.HEADING_1, pageBreakBefore: true, children: [new TextRun('Disagreements')] });
  if (review.disagreements.length === 0)
    return [
      heading,
      intro,
      new Paragraph('The sources agree on every term compared (durations, notice periods, amounts, dates, governing law, parties).'),
    ];
  const cell = (paragraphs: Paragraph[], header = false) =>
    new TableCell({ children: paragraphs, ...(header ? { shading: { fill: 'F1F3F8' } } : {}) });
  const head = new TableRow({
    tableHeader: true,
    children: ['Topic', 'What each source says', 'The merge kept'].map((t) =>
      cell([new Paragraph({ children: [new TextRun({ text: t, bold: true })] })], true),
    ),
  });
  const rows = review.disagreements.map(
    (d) =>
      new TableRow({
        cantSplit: true,
        children: [
          cell([new Paragraph(d.topic)]),
          cell(
            d.values.map(
              (v) =>
                new Paragraph({
                  children: [
                    new TextRun({ text: `${v.name}: `, bold: true }),
                    new TextRun(v.text),
                    ...(v.where ? [new TextRun({ text: ` (${v.where})`, color: NOTE_COLOR })] : []),
                  ],
                }),
            ),
          ),
          cell([
            new Paragraph({
              children: d.kept.length
                ? [new TextRun(d.kept.join('; '))]
                : [new TextRun({ text: 'dropped by the merge', italics: true, color: FLAG_COLOR })],
            }),
            ...(d.decided ? [new Paragraph({ children: [new TextRun({ text: d.decided, color: NOTE_COLOR })] })] : []),
          ]),
        ],
      }),
  );
  return [
    heading,
    intro,
    new Table({ rows: [head, ...rows], width: { size: 100, type: WidthType.PERCENTAGE }, columnWidths: [2200, 4600, 2600] }),
  ];
}
