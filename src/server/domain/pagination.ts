interface PageRequest {
  page: number;
  size: number;
}

export function offsetOf(p: PageRequest): number {
  return (p.page - 1) * p.size;
}
