/** What a partner's stand-in refuses, as that partner would: its own code (eSIM Access) or HTTP status (eSIM Go), and its message. */
export class StandInRefusal<Code extends string | number> extends Error {
  readonly code: Code;
  constructor(code: Code, message: string) {
    super(message);
    this.code = code;
  }
}
