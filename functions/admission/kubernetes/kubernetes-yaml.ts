// Manifests as Kubernetes' YAML reader reads them (go-yaml, through sigs.k8s.io/yaml), on the yaml library.
// They differ in one place manifests in the wild rely on: go-yaml reads a quoted scalar whose continuation
// lines sit at the indentation of the line it starts on (the Gatekeeper library's httpsonly template has one),
// where the yaml library, following YAML 1.2, wants them indented further and stops at a missing quote. Such
// lines are indented one space more and the text read again, which leaves every value as it was: a quoted
// scalar's line breaks fold and its continuation lines' leading spaces are dropped. Only a text that failed
// so is touched, and only those lines. What go-yaml refuses stays refused: duplicate keys, tabs as
// indentation, a continuation indented less than its first line, a quote never closed.
import { type Document, Lexer, parseAllDocuments } from 'yaml';

type Documents = Document.Parsed[];

const MISSING_QUOTE = /^Missing closing ["']quote/;

/** The offset just past the quote that closes the scalar opened at `start`, or -1 when none does. */
function closingQuote(text: string, start: number): number {
  const quote = text[start]!;
  for (let index = start + 1; index < text.length; index++) {
    const character = text[index];
    if (quote === '"' && character === '\\') index++;
    else if (character === quote) {
      if (quote === "'" && text[index + 1] === "'") index++;
      else return index + 1;
    }
  }
  return -1;
}

const indentationAt = (text: string, lineStart: number) => {
  let end = lineStart;
  while (text[end] === ' ') end++;
  return end - lineStart;
};

/** Where the first quoted scalar the lexer cut short starts, or -1. */
function firstCutScalar(text: string): number {
  let offset = 0;
  for (const token of new Lexer().lex(text)) {
    // The lexer's control tokens (document, scalar and flow markers) take up no source.
    if (token.length === 1 && token < ' ' && token !== '\n' && token !== '\t') continue;
    if ((token[0] === '"' || token[0] === "'") && closingQuote(token, 0) !== token.length) return offset;
    offset += token.length;
  }
  return -1;
}

/** The text with the continuation lines of its first cut-short quoted scalar indented one space more, or undefined. */
function indentedOnce(text: string): string | undefined {
  const start = firstCutScalar(text);
  if (start === -1) return undefined;
  const end = closingQuote(text, start);
  if (end === -1) return undefined;
  const lineStart = text.lastIndexOf('\n', start) + 1;
  const indentation = indentationAt(text, lineStart);
  let result = text.slice(0, start);
  let from = start;
  for (let newline = text.indexOf('\n', start); newline !== -1 && newline < end; newline = text.indexOf('\n', newline + 1)) {
    const line = newline + 1;
    const own = indentationAt(text, line);
    const blank = text[line + own] === '\n' || line + own >= text.length;
    if (blank || own > indentation) continue;
    if (own < indentation) return undefined;
    result += `${text.slice(from, line)} `;
    from = line;
  }
  return result + text.slice(from);
}

/** Every document of the text, read as Kubernetes reads it; their errors say what and where. */
export function parseKubernetesYaml(text: string): Documents {
  let documents = parseAllDocuments(text, { prettyErrors: true, uniqueKeys: true }) as Documents;
  // Each round fixes one scalar, so the rounds are bounded by the text's lines.
  for (let source = text; documents.some((document) => document.errors.some((error) => MISSING_QUOTE.test(error.message))); ) {
    const fixed = indentedOnce(source);
    if (fixed === undefined) break;
    source = fixed;
    documents = parseAllDocuments(source, { prettyErrors: true, uniqueKeys: true }) as Documents;
  }
  return documents;
}
