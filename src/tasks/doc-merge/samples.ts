/**
 * The clause library the NDA generator draws from, written for this project. Each sentence comes
 * in a few wordings that say the same thing in slightly different words, so that documents built
 * from it overlap the way real NDAs of one deal do: the same clause phrased differently, plus
 * clauses only some documents have. Placeholders in braces are filled per problem or document.
 */

export interface ClauseTopic {
  /** Section headings; one is picked per document. */
  headings: readonly string[];
  /** Each sentence as its alternative wordings. */
  sentences: readonly (readonly string[])[];
}

export const TITLES = [
  'NON-DISCLOSURE AGREEMENT',
  'CONFIDENTIALITY AGREEMENT',
  'MUTUAL CONFIDENTIALITY AND NON-DISCLOSURE AGREEMENT',
  'AGREEMENT ON THE PROTECTION OF CONFIDENTIAL INFORMATION',
] as const;

/** The opening paragraph naming the parties; every document has it. */
export const PARTIES: ClauseTopic = {
  headings: [''],
  sentences: [
    [
      'This agreement is made on {DATE} between {D}, the disclosing party, and {R}, the receiving party.',
      'This agreement is entered into on {DATE} by {D} as the disclosing party and {R} as the receiving party.',
      'This agreement, dated {DATE}, is concluded between {D}, acting as disclosing party, and {R}, acting as receiving party.',
    ],
    [
      '{D} is a company organised under the laws of {LAW} with its principal office in {CITY}.',
      '{D} is a corporation organised under the laws of {LAW} whose principal office is located in {CITY}.',
    ],
    [
      '{R} is an independent firm that provides {SERVICE} services to its clients.',
      '{R} is an independent firm providing {SERVICE} services to its clients.',
    ],
  ],
};

/** Topics every document covers, each with a document-specific subset of its sentences. */
export const CORE_TOPICS: readonly ClauseTopic[] = [
  {
    headings: ['Purpose', 'Purpose of the Disclosure'],
    sentences: [
      [
        '{D} intends to share confidential information with {R} so that the parties can evaluate {PURPOSE}.',
        '{D} plans to disclose confidential information to {R} so that both parties can assess {PURPOSE}.',
      ],
      [
        '{R} shall use the confidential information only for this purpose and for no other aim.',
        '{R} shall use the confidential information solely for this purpose and for no other aim.',
      ],
      [
        'Nothing in this agreement obliges either party to enter into any further transaction or business relationship.',
        'This agreement does not oblige either party to conclude any further transaction or business relationship.',
      ],
    ],
  },
  {
    headings: ['Confidential Information', 'Definition of Confidential Information'],
    sentences: [
      [
        'Confidential information means all technical, commercial and financial information that {D} discloses to {R}, in writing, orally or in any other form.',
        'Confidential information means any technical, commercial or financial information disclosed by {D} to {R}, whether in writing, orally or in another form.',
      ],
      [
        'It includes in particular source code, product designs, prototypes, customer lists, pricing models and business plans.',
        'It covers in particular source code, product designs, prototypes, customer lists, price models and business plans.',
      ],
      [
        'Information is confidential whether or not it is marked as such, provided a reasonable person would understand it to be confidential.',
        'Information counts as confidential even when it is not marked, provided a reasonable person would regard it as confidential.',
      ],
    ],
  },
  {
    headings: ['Obligations of the Receiving Party', 'Duties of the Recipient'],
    sentences: [
      [
        '{R} shall keep the confidential information strictly secret and protect it with at least the care it applies to its own secrets, and never less than reasonable care.',
        '{R} must keep the confidential information strictly secret and protect it with no less care than it applies to its own secrets, and at least reasonable care.',
      ],
      [
        'Access to the confidential information is limited to employees and advisers of {R} who need to know it and who are bound by equally strict duties of confidentiality.',
        'Access to the confidential information is restricted to those employees and advisers of {R} who need to know it and who are bound by equally strict confidentiality duties.',
      ],
      [
        '{R} shall not copy, reverse engineer or decompile any materials received from {D}.',
        '{R} must not copy, decompile or reverse engineer any materials it receives from {D}.',
      ],
      [
        '{R} shall notify {D} in writing without delay on becoming aware of any unauthorised use or disclosure of the confidential information.',
        '{R} must inform {D} in writing without undue delay on learning of any unauthorised use or disclosure of the confidential information.',
      ],
    ],
  },
  {
    headings: ['Exclusions', 'Information Not Covered'],
    sentences: [
      [
        'These obligations do not apply to information that is or becomes public through no fault of {R}.',
        'These obligations do not apply to information that is or becomes publicly available through no fault of {R}.',
      ],
      [
        'Nor do they apply to information that {R} lawfully possessed before the disclosure or develops independently without using the confidential information.',
        'They also do not apply to information that {R} already lawfully held before the disclosure or develops on its own without use of the confidential information.',
      ],
      [
        '{R} may disclose confidential information where a court or authority requires it by law, provided it informs {D} beforehand where this is permitted.',
        '{R} may disclose confidential information if a court or public authority requires it by law, provided it notifies {D} beforehand where permitted.',
      ],
    ],
  },
  {
    headings: ['Term and Termination', 'Duration'],
    sentences: [
      [
        'This agreement takes effect on the date of signature and remains in force for {TERM} years.',
        'This agreement takes effect on the date of signature and stays in force for a period of {TERM} years.',
      ],
      [
        "Either party may terminate it earlier by giving {NOTICE} days' written notice to the other party.",
        "Each party may terminate it before then by giving the other party {NOTICE} days' written notice.",
      ],
      [
        'The duties of confidentiality survive the end of this agreement for a further {SURVIVE} years.',
        'The confidentiality duties continue for another {SURVIVE} years after the end of this agreement.',
      ],
    ],
  },
  {
    headings: ['Governing Law', 'Applicable Law and Jurisdiction'],
    sentences: [
      ['This agreement is governed by the laws of {LAW}.', 'This agreement shall be governed by and construed under the laws of {LAW}.'],
      [
        'The courts of {CITY} have exclusive jurisdiction over any dispute arising from this agreement.',
        'Any dispute arising out of this agreement falls under the exclusive jurisdiction of the courts of {CITY}.',
      ],
    ],
  },
];

/** Topics only some documents have: what makes merging more than picking one document. */
export const OPTIONAL_TOPICS: readonly ClauseTopic[] = [
  {
    headings: ['Return of Materials', 'Return or Destruction'],
    sentences: [
      [
        'At the request of {D}, or when this agreement ends, {R} shall return or destroy all documents and copies that contain confidential information.',
        'When {D} asks, or on the end of this agreement, {R} must return or destroy all documents and copies containing confidential information.',
      ],
      [
        '{R} shall confirm the destruction in writing within {RETURN} days.',
        '{R} must certify the destruction in writing within {RETURN} days.',
      ],
      [
        'Copies held in routine electronic backups may be retained as long as they are not accessed and remain protected under this agreement.',
        'Copies stored in routine electronic backups may be kept provided they are not accessed and stay protected under this agreement.',
      ],
    ],
  },
  {
    headings: ['Remedies', 'Consequences of a Breach'],
    sentences: [
      [
        '{R} acknowledges that a breach may cause {D} irreparable harm for which damages alone would not be an adequate remedy.',
        '{R} accepts that a breach could cause {D} irreparable harm that money damages alone could not adequately remedy.',
      ],
      [
        '{D} is therefore entitled to seek injunctive relief in addition to any other remedy available at law.',
        '{D} may therefore apply for injunctive relief on top of any other remedy available at law.',
      ],
      [
        'For every breach of this agreement {R} shall pay a contractual penalty of {FEE}, without prejudice to further damages.',
        'For each breach of this agreement {R} owes a contractual penalty of {FEE}, without prejudice to any further damages.',
      ],
    ],
  },
  {
    headings: ['Non-Solicitation', 'No Poaching of Staff'],
    sentences: [
      [
        'During this agreement and for {NONSOLICIT} months after its end, {R} shall not solicit or hire any employee of {D} it met in connection with the purpose.',
        'While this agreement lasts and for {NONSOLICIT} months after its end, {R} must not solicit or hire any employee of {D} it met in connection with the purpose.',
      ],
      [
        'General job advertisements that are not aimed at employees of {D} do not breach this clause.',
        'Job advertisements addressed to the general public and not aimed at staff of {D} do not breach this clause.',
      ],
    ],
  },
  {
    headings: ['Non-Competition', 'Restriction on Competing Products'],
    sentences: [
      [
        '{R} shall not use the confidential information to develop, market or sell any product that competes with the products of {D}.',
        '{R} must not use the confidential information to build, market or sell products competing with those of {D}.',
      ],
      [
        'This restriction applies for the term of this agreement and for one year after its termination.',
        'This restriction lasts for the term of this agreement and for one further year after its termination.',
      ],
    ],
  },
  {
    headings: ['Ownership and No Licence', 'Intellectual Property'],
    sentences: [
      [
        'All confidential information remains the exclusive property of {D}.',
        'All confidential information stays the sole and exclusive property of {D}.',
      ],
      [
        'This agreement grants {R} no licence under any patent, copyright, trade secret or other intellectual property right.',
        'No licence under any patent, copyright, trade secret or other intellectual property right is granted to {R} by this agreement.',
      ],
      [
        '{D} provides the confidential information as is and gives no warranty about its accuracy or completeness.',
        'The confidential information is supplied as is, and {D} makes no warranty regarding its accuracy or completeness.',
      ],
    ],
  },
  {
    headings: ['Personal Data', 'Data Protection'],
    sentences: [
      [
        'Where the confidential information contains personal data, {R} shall process it only in line with the applicable data protection laws.',
        'If the confidential information includes personal data, {R} must process it only in accordance with applicable data protection law.',
      ],
      [
        '{R} shall apply appropriate technical and organisational measures, such as encryption and access controls, to protect such data.',
        '{R} must use suitable technical and organisational measures, including encryption and access controls, to secure such data.',
      ],
    ],
  },
  {
    headings: ['Publicity', 'Announcements'],
    sentences: [
      [
        'Neither party shall publicly announce the talks or their content unless the other side has approved the announcement.',
        'Neither party shall publicly announce the talks or what they are about unless the other side has approved that announcement.',
      ],
      [
        'Neither party may use the name or logo of the other in any publication or marketing material.',
        'Neither party is allowed to use the name or logo of the other party in publications or marketing material.',
      ],
    ],
  },
  {
    headings: ['Export Control'],
    sentences: [
      [
        '{R} shall comply with all export control regulations that apply to technical data received under this agreement.',
        '{R} must comply with every export control regulation that applies to technical data received under this agreement.',
      ],
      [
        '{R} shall not export or re-export such data to any country for which a licence would be required without first obtaining it.',
        '{R} must not export or re-export such data to any country requiring a licence unless it has first obtained that licence.',
      ],
    ],
  },
  {
    headings: ['Assignment', 'Successors'],
    sentences: [
      [
        'Neither party may assign or transfer this agreement without the prior written consent of the other party.',
        'Neither party may transfer or assign this agreement unless the other party gives its prior written consent.',
      ],
      [
        'This agreement binds and benefits the parties and their permitted successors and assigns.',
        'This agreement is binding on and benefits the parties and their permitted successors and assigns.',
      ],
    ],
  },
  {
    headings: ['Entire Agreement', 'Final Provisions'],
    sentences: [
      [
        'This agreement contains the entire understanding of the parties on its subject and supersedes all earlier arrangements.',
        'This agreement contains the complete understanding of the parties on its subject and replaces all earlier arrangements.',
      ],
      [
        'Amendments to this agreement are valid only if made in writing and signed by both parties.',
        'Changes to this agreement are valid only when made in writing and signed by both parties.',
      ],
      [
        'If any provision is held invalid or unenforceable, the remaining provisions stay in full force and effect.',
        'Should any provision be found invalid or unenforceable, the remaining provisions remain in full force and effect.',
      ],
    ],
  },
  {
    headings: ['Audit Rights', 'Verification'],
    sentences: [
      [
        "{D} may, on {NOTICE} days' notice, verify compliance with this agreement by inspecting the relevant records of {R}.",
        "With {NOTICE} days' notice, {D} may check compliance with this agreement by inspecting the relevant records of {R}.",
      ],
      [
        'Such inspections take place during normal business hours and at the cost of {D}.',
        'Such inspections are carried out during normal business hours and at the expense of {D}.',
      ],
    ],
  },
];

/** The closing line; every document has it. */
export const SIGNATURE = [
  'In witness whereof, the authorised representatives of both parties have signed this agreement on the date stated above.',
  'In witness whereof, the duly authorised representatives of both parties have signed this agreement on the date given above.',
] as const;

export const DISCLOSERS = [
  'Harbor Analytics Ltd',
  'Quillstone Biotech Inc',
  'Meridian Grid Systems',
  'Fernhill Materials GmbH',
  'Tidewater Robotics Corp',
  'Lumen Orchard Foods',
];
export const RECIPIENTS = [
  'Northbeam Consulting',
  'Cobalt Ridge Partners',
  'Vantage Loom Studio',
  'Ironbark Software',
  'Silverfen Logistics',
  'Opaline Research Group',
];
export const PURPOSES = [
  'a joint development of a battery management platform',
  'a possible acquisition of a minority stake',
  'a licensing arrangement for a diagnostic assay',
  'a supply partnership for recycled composites',
  'an integration of their fleet scheduling software',
  'a co-marketing campaign for a new product line',
];
export const SERVICES = ['engineering', 'financial advisory', 'design', 'software development', 'logistics', 'market research'];
export const PLACES = [
  { law: 'the State of Delaware', city: 'Wilmington' },
  { law: 'England and Wales', city: 'London' },
  { law: 'the State of New York', city: 'New York' },
  { law: 'the Province of Ontario', city: 'Toronto' },
  { law: 'the Commonwealth of Massachusetts', city: 'Boston' },
];
export const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
