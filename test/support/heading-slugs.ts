/** GitHub's anchors of a Markdown page's headings: lower case, punctuation dropped, spaces as hyphens. */
export function headingSlugs(markdown: string): Set<string> {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '');
  return new Set(
    [...withoutCode.matchAll(/^#{1,6} (.+)$/gm)].map(([, title = '']) =>
      title
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    ),
  );
}
