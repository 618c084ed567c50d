// A reply buffer with a cap, for a debugger whose reply to one command has no size limit (winedbg
// prints whatever a program left in memory). Past the cap the oldest text goes, keeping the last
// three quarters, and the reply then opens with a notice naming how much went. The cap counts
// UTF-16 code units (what a JS string costs); the notice counts code points (what a reader
// counts); a cut never lands between the two halves of a surrogate pair.

export class CappedText {
  private text = '';
  private droppedCodePoints = 0;

  constructor(private readonly cap: number) {
    if (!(cap >= 4)) throw new Error('the cap must be at least 4 code units');
  }

  append(chunk: string): void {
    this.text += chunk;
    if (this.text.length <= this.cap) return;
    let cut = this.text.length - Math.floor((this.cap * 3) / 4);
    // Do not start the kept text with the low half of a pair: move the cut back onto the high half.
    const first = this.text.charCodeAt(cut);
    if (first >= 0xdc00 && first <= 0xdfff && cut > 0) cut--;
    this.droppedCodePoints += codePoints(this.text.slice(0, cut));
    this.text = this.text.slice(cut);
  }

  /** The text kept so far (no notice). */
  get value(): string {
    return this.text;
  }

  get dropped(): number {
    return this.droppedCodePoints;
  }

  /** The kept text, opened by the drop notice when something was dropped. */
  render(): string {
    if (this.droppedCodePoints === 0) return this.text;
    return `[${this.droppedCodePoints} characters of earlier output dropped: buffer limit]\n${this.text}`;
  }

  clear(): void {
    this.text = '';
    this.droppedCodePoints = 0;
  }
}

function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}
