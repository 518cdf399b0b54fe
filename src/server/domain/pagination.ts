export interface PageRequest {
  page: number;
  size: number;
}

export function offsetOf(p: PageRequest): number {
  return (p.page - 1) * p.size;
}

export function pageOf<T>(results: T[], p: PageRequest, total: number) {
  return { results, page: p.page, size: p.size, total };
}
