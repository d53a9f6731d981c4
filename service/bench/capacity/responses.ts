export async function run(_sizes: number[], _samples?: number): Promise<boolean> { return true; }
