// Newline-delimited framing (MCP stdio transport) with a size cap. An oversize line is
// skipped up to its newline and reported, never buffered without bound.
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private discarding = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: Buffer) => void,
    private readonly onOversize: (bytes: number) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      if (this.discarding) {
        this.size += piece.length;
      } else if (this.size + piece.length > this.maxBytes) {
        this.discarding = true;
        this.size += piece.length;
        this.parts = [];
      } else {
        this.parts.push(piece);
        this.size += piece.length;
      }
      if (nl === -1) break;
      if (this.discarding) this.onOversize(this.size);
      else this.onLine(Buffer.concat(this.parts));
      this.parts = [];
      this.size = 0;
      this.discarding = false;
      start = nl + 1;
    }
  }

  /** What is left without a final newline, as one last line. */
  end(): void {
    if (this.discarding) this.onOversize(this.size);
    else if (this.size > 0) this.onLine(Buffer.concat(this.parts));
    this.parts = [];
    this.size = 0;
    this.discarding = false;
  }
}
