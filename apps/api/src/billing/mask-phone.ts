/** A phone number with all but its first 4 and last 2 digits hidden: 79990001122 -> 7999*****22. */
export function maskPhone(phone: string | null): string | null {
  if (phone === null) return null;
  if (phone.length <= 6) return phone.replace(/./g, '*');
  return `${phone.slice(0, 4)}${'*'.repeat(phone.length - 6)}${phone.slice(-2)}`;
}
