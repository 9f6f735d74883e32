/**
 * The built-in mail templates, in liquid as Directus writes its own: a base layout with the project's name, colour
 * and logo, and one template per mail that fills its `content` block. EMAIL_TEMPLATES_PATH can replace any of them
 * by a file of the same name (`base.liquid`, `password-reset.liquid`, ...).
 */
export const DEFAULT_TEMPLATES: ReadonlyMap<string, string> = new Map([
  [
    'base',
    `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>{{ projectName }}</title></head>
<body style="margin:0;padding:0;background:#f0f4f9;font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,sans-serif;color:#172940">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center" style="padding:32px 16px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:600px;background:#fff;border-radius:6px;overflow:hidden">
<tr><td style="background:{{ projectColor }};padding:24px">
{% if projectLogo %}<img src="{{ projectLogo }}" alt="{{ projectName }}" height="40" style="height:40px;vertical-align:middle">{% endif %}
<span style="color:#fff;font-size:18px;font-weight:600;vertical-align:middle">{{ projectName }}</span>
</td></tr>
<tr><td style="padding:32px 24px;font-size:15px;line-height:1.6">{% block content %}{% endblock %}</td></tr>
<tr><td style="padding:16px 24px;font-size:12px;color:#6b7b93">Sent by {{ projectName }}{% if projectUrl %} &middot; <a href="{{ projectUrl }}" style="color:#6b7b93">{{ projectUrl }}</a>{% endif %}</td></tr>
</table></td></tr></table>
</body>
</html>
`,
  ],
  [
    'password-reset',
    `{% layout "base" %}{% block content %}
<p>You asked to reset the password of <b>{{ email }}</b> on {{ projectName }}.</p>
<p><a href="{{ url }}" style="display:inline-block;background:{{ projectColor }};color:#fff;padding:10px 18px;border-radius:4px;text-decoration:none">Reset your password</a></p>
<p>The link works once and expires in {{ expires }}. If you did not ask for it, ignore this mail: your password stays as it is.</p>
{% endblock %}`,
  ],
  [
    'user-invitation',
    `{% layout "base" %}{% block content %}
<p>You have been invited to {{ projectName }} as <b>{{ email }}</b>.</p>
<p><a href="{{ url }}" style="display:inline-block;background:{{ projectColor }};color:#fff;padding:10px 18px;border-radius:4px;text-decoration:none">Accept the invitation</a></p>
<p>The link works once and expires in {{ expires }}.</p>
{% endblock %}`,
  ],
  [
    'user-registration',
    `{% layout "base" %}{% block content %}
<p>Thank you for signing up to {{ projectName }} as <b>{{ email }}</b>.</p>
<p><a href="{{ url }}" style="display:inline-block;background:{{ projectColor }};color:#fff;padding:10px 18px;border-radius:4px;text-decoration:none">Verify your email address</a></p>
<p>The link works once and expires in {{ expires }}. If you did not sign up, ignore this mail.</p>
{% endblock %}`,
  ],
  [
    'user-mention',
    `{% layout "base" %}{% block content %}
<p>Hello {{ recipient }},</p>
<p>{{ sender }} has mentioned you in a comment on {{ collection }}:</p>
<blockquote style="margin:16px 0;padding:8px 16px;border-left:4px solid {{ projectColor }};background:#f0f4f9;white-space:pre-wrap">{{ comment }}</blockquote>
{% if url %}<p><a href="{{ url }}" style="display:inline-block;background:{{ projectColor }};color:#fff;padding:10px 18px;border-radius:4px;text-decoration:none">Click here to view</a></p>{% endif %}
{% endblock %}`,
  ],
]);

/** The subject of each built-in mail. */
export const SUBJECTS: Readonly<Record<MailTemplate, string>> = {
  'password-reset': 'Password Reset Request',
  'user-invitation': "You've been invited",
  'user-registration': 'Verify your email address',
  'user-mention': 'You were mentioned',
};

export type MailTemplate = 'password-reset' | 'user-invitation' | 'user-registration' | 'user-mention';
