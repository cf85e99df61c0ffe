export function latin1Bundle(file: string): Promise<void>;
