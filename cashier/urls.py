"""The cashier's routes (``config.urls`` includes them): the API of :mod:`cashier.api`."""

from django.urls import path

from cashier import api

urlpatterns = [
    path("api/cashier/", api.AccountView.as_view(), name="api-cashier"),
    path("api/cashier/players/<int:user_id>/", api.PlayerAccountView.as_view(), name="api-cashier-player"),
    *(
        path(
            f"api/cashier/players/<int:user_id>/{operation}/",
            api.OperatorView.as_view(operation=operation),
            name=f"api-cashier-{operation}",
        )
        for operation in ("grant", "credit", "debit")
    ),
    *(
        path(
            f"api/cashier/tables/<int:table_id>/{operation}/",
            api.TransferView.as_view(operation=operation),
            name=f"api-cashier-{operation}",
        )
        for operation in ("buy-in", "top-up", "cash-out")
    ),
]
