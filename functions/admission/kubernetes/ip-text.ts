// An IP address as text, as Go's net.IP.String() and Kubernetes' CEL ip library write it: dotted IPv4, and
// IPv6 in lowercase hex groups with the longest run of two or more zero groups (the first on a tie) as `::`.

/** The address given as a number (32 bits for IPv4, 128 for IPv6) as text. */
export function ipText(family: 4 | 6, value: bigint): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 255n)).join('.');
  const groups = Array.from({ length: 8 }, (_, index) => ((value >> BigInt(112 - 16 * index)) & 0xffffn).toString(16));
  let best = { start: -1, length: 0 };
  for (let start = 0; start < 8; ) {
    if (groups[start] !== '0') {
      start++;
      continue;
    }
    let end = start;
    while (end < 8 && groups[end] === '0') end++;
    if (end - start > best.length && end - start >= 2) best = { start, length: end - start };
    start = end;
  }
  if (best.start < 0) return groups.join(':');
  return `${groups.slice(0, best.start).join(':')}::${groups.slice(best.start + best.length).join(':')}`;
}
