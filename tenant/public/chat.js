// The analytics chat: a question goes to the tenant's agent; the embed reports submitted, then
// completed or error. Answers are rendered as text and a small table, never as markup.
import { getJson } from './api.js';
import { h } from './dom.js';
import { barChart } from './charts.js';
import { fmt, t } from './i18n.js';

const SUGGESTIONS = ['Revenue by region', 'How many orders by channel?', 'Top accounts by revenue', 'Revenue trend by month', 'What is the weather in Paris?'];

export class Chat {
  constructor({ emit, session, compact = false }) {
    Object.assign(this, { emit, session });
    this.chatId = `chat-${crypto.randomUUID().slice(0, 8)}`;
    this.messages = h('ol', { class: 'messages', 'aria-live': 'polite' });
    this.input = h('input', { type: 'text', name: 'q', autocomplete: 'off', maxlength: 500, placeholder: t('ask'), 'aria-label': t('ask') });
    this.button = h('button', { type: 'submit', class: 'btn primary' }, t('send'));
    this.el = h('section', { class: `chat${compact ? ' compact' : ''}` },
      this.messages,
      h('div', { class: 'suggestions' }, SUGGESTIONS.map((q) => h('button', { type: 'button', class: 'chip suggestion', onclick: () => this.ask(q) }, q))),
      h('form', { class: 'ask', onsubmit: (e) => {
        e.preventDefault();
        this.ask(this.input.value);
      } }, this.input, this.button));
  }

  relabel() {
    this.input.placeholder = t('ask');
    this.input.setAttribute('aria-label', t('ask'));
    this.button.textContent = t('send');
  }

  async ask(raw) {
    const query = raw.trim().slice(0, 500);
    if (!query) return;
    this.input.value = '';
    this.messages.append(h('li', { class: 'msg user' }, query));
    const pending = h('li', { class: 'msg bot pending' }, t('thinking'));
    this.messages.append(pending);
    this.messages.scrollTop = this.messages.scrollHeight;
    this.emit('svc:event:ai-query', { query, status: 'submitted', chatId: this.chatId });
    const q = new URLSearchParams({ q: query });
    if (this.session !== undefined) q.set('session', this.session);
    try {
      const body = await getJson(`/embed/api/ask?${q}`);
      pending.replaceWith(this.answer(body));
      this.emit('svc:event:ai-query', { query, status: 'completed', chatId: this.chatId, agentId: body.agentId });
    } catch (error) {
      pending.replaceWith(h('li', { class: 'msg bot error', role: 'alert' }, error.message));
      this.emit('svc:event:ai-query', { query, status: 'error', chatId: this.chatId });
    }
    this.messages.scrollTop = this.messages.scrollHeight;
  }

  answer({ text, table }) {
    if (!table) return h('li', { class: 'msg bot' }, text);
    const points = table.rows.map(([key, value]) => ({ key, value }));
    const format = (v, compact) => fmt(v, table.format, { compact });
    return h('li', { class: 'msg bot' }, h('p', {}, text),
      barChart(points, { format, label: text, onPick: () => {} }),
      h('table', { class: 'data small' },
        h('thead', {}, h('tr', {}, table.columns.map((c) => h('th', {}, c)))),
        h('tbody', {}, table.rows.map(([k, v]) => h('tr', {}, h('td', {}, k), h('td', { class: 'num' }, format(v)))))));
  }
}
