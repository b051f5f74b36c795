def exception_handler(exc, context):
    from rest_framework.views import exception_handler as default
    return default(exc, context)
