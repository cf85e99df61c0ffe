export function latin1Source(source: string, file: string): string;
export function latin1Bundle(file: string): Promise<void>;
