// The `isX(string)` functions of Kubernetes' CEL libraries: whether the parser `parse` accepts the text.
export function accepts(parse: (text: string) => unknown): (text: string) => boolean {
  return (text) => {
    try {
      parse(text);
      return true;
    } catch {
      return false;
    }
  };
}
