export function fields(...values: (string | number)[]): Buffer;
export function readFields(body: Buffer): string[];
