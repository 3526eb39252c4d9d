// Progressive enhancement for the app page: its moments are written in UTC (pages/utc-time.ts);
// this shows them in the browser's own time zone, in the same form, and leaves the UTC text in
// the title for hover. Without script the UTC text stays.
const pad = (n) => String(n).padStart(2, '0');

/** "UTC", "UTC+9", "UTC-3:30": the zone said by its offset, the same words as the UTC text. */
function zoneOf(date) {
  const offset = -date.getTimezoneOffset();
  if (offset === 0) return 'UTC';
  const minutes = Math.abs(offset);
  const rest = minutes % 60 === 0 ? '' : `:${pad(minutes % 60)}`;
  return `UTC${offset > 0 ? '+' : '-'}${Math.floor(minutes / 60)}${rest}`;
}

for (const time of document.querySelectorAll('time[datetime$="Z"]')) {
  const date = new Date(time.dateTime);
  if (Number.isNaN(date.getTime())) continue;
  // The precision the server chose: seconds for webhook calls, minutes for keys, and a time of
  // day alone (no date) for the session's end.
  const seconds = /\d:\d\d:\d\d /.test(time.textContent) ? `:${pad(date.getSeconds())}` : '';
  const day = /^\d{4}-/.test(time.textContent)
    ? `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} `
    : '';
  time.textContent = `${day}${pad(date.getHours())}:${pad(date.getMinutes())}${seconds} ${zoneOf(date)}`;
}
