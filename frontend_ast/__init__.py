"""pyhalide.frontend_ast"""
